package extract

// FactKey is the attribute a stored fact should have now: facts stored
// before the claim keys are renamed by the consolidation (no migration: the
// keys are Go's, in internal/claim), "home" by its value the address or
// the city.
func FactKey(attribute, value string) string {
	if attribute == "home" {
		return placeKey(value)
	}
	return AttributeKey(attribute)
}
