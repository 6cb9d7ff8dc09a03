package workloads

import "embed"

// Shipped holds every workload file the repository ships: the study
// workloads at the top (workloads/*.yaml) and the smoke set
// (workloads/smoke/*.yaml). `perfgate init --workloads NAME` copies the
// ones it is given by name into the team's repository.
//
//go:embed *.yaml smoke/*.yaml
var Shipped embed.FS
