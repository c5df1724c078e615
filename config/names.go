package config

// ProfileNames lists the profiles of the config file at path, sorted:
// what shell completion offers for --profile. A file that is missing or
// does not parse has none.
func ProfileNames(path string) []string {
	doc, err := readFile(path)
	if err != nil || doc == nil {
		return nil
	}
	return doc.profileNames()
}
