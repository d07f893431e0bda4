//go:build race

package files

// raceEnabled: the race detector's runtime maps its shadow memory where a child's RLIMIT_AS leaves
// no room, and reports running out of it in its own words.
const raceEnabled = true
