// Module conformance holds the simulator's conformance test against the
// official OpenAI Go client. It is a module of its own so that the main
// module never compiles that client (about 250,000 lines): `make test` runs
// it once, without -race, through `make conformance`.
module github.com/perfgate/perfgate/gate/sim/conformance

go 1.26.0

require (
	github.com/openai/openai-go/v3 v3.98.0
	github.com/perfgate/perfgate v0.0.0
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
)

replace github.com/perfgate/perfgate => ../../..
