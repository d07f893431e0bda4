//go:build race

package locomo

const raceEnabled = true
