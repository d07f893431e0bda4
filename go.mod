module github.com/dormouse-dev/dormouse

go 1.26.0

require (
	github.com/coreos/go-systemd/v22 v22.7.0
	github.com/google/go-cmp v0.7.0
	github.com/ncruces/go-sqlite3 v0.37.0
	go.yaml.in/yaml/v3 v3.0.6
)

require (
	github.com/ncruces/go-sqlite3-wasm/v6 v6.5.35401 // indirect
	github.com/ncruces/julianday v1.0.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
