package metrics

// DeriveRates adds to v the rates the catalogue defines from a trial's
// throughputs (qpm, tpm and the per-GPU throughputs of a server on gpus
// GPUs; gpus 0: unknown, none per GPU), for the throughputs v carries.
// The accumulator and the importers of other tools' results call it, so a
// measured and an imported trial derive them alike.
func DeriveRates(v map[string]float64, gpus int) {
	if x, ok := v["request_throughput"]; ok {
		v["qpm"] = 60 * x
	}
	if x, ok := v["total_token_throughput"]; ok {
		v["tpm"] = 60 * x
		if gpus > 0 {
			v["total_token_throughput_per_gpu"] = x / float64(gpus)
		}
	}
	if x, ok := v["output_throughput"]; ok && gpus > 0 {
		v["output_throughput_per_gpu"] = x / float64(gpus)
	}
}
