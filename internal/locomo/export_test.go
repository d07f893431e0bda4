package locomo

// For the tests of package locomo_test, which build the parts under test
// through the daemon's composition root (a package locomo may not import).
const RaceEnabled = raceEnabled

var DataPath = dataPath

const Quirky = quirky
