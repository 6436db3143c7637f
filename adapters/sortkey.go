package adapters

// allHave reports whether every item of list is an object with the member
// key: such a list is ordered by it (schema.Meta.SortKey).
func allHave(list []any, key string) bool {
	for _, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m[key]; !ok {
			return false
		}
	}
	return len(list) > 0
}
