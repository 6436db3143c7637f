package schema

import "maps"

// withBackground adds to the object data of a command that declares a
// background process (Meta.Background) the members the framework answers
// with: background_pid and cleanup_command (the CLI Agent Spec's C-010).
func withBackground(s Schema) Schema {
	props, ok := s["properties"].(map[string]any)
	if s["type"] != "object" || !ok {
		return s
	}
	props = maps.Clone(props)
	if _, ok := props["background_pid"]; !ok {
		props["background_pid"] = map[string]any{"type": "integer", "description": "the process the command started in the background"}
	}
	if _, ok := props["cleanup_command"]; !ok {
		props["cleanup_command"] = map[string]any{"type": "string", "description": "the command that stops it"}
	}
	s = maps.Clone(s)
	s["properties"] = props
	return s
}
