// Package conformance checks the simulator (gate/sim) with a client nobody
// on this project wrote, the official OpenAI Go client: if it can stream
// from the simulator and read the usage, the framing is right in a way
// perfgate's own client cannot prove. It lives in a module of its own so the
// main module's `go vet` and race-enabled tests never compile that client.
package conformance
