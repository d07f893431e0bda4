//go:build race

package watch

// raceEnabled: TestVaultInitialScan takes 144 s under the race detector and
// 20 s without; make test runs it in its plain pass.
const raceEnabled = true
