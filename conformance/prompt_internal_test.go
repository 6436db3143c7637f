package conformance

import "testing"

// TestPromptAtEnd: a question at the end of the output is a prompt; the
// last lines of help, JSON and messages are not.
func TestPromptAtEnd(t *testing.T) {
	for out, want := range map[string]bool{
		"Enter choice [1/2]: ":                        true,
		"Overwrite config.json? [y/N] ":               true,
		"Continue? (yes/no) ":                         true,
		"Found 3 items\nAre you sure you want to?":    true,
		"Select a project:\n> ":                       false, // a menu line alone is not a question
		"Choose a region (us, eu): ":                  true,
		`{"ok":true,"data":[]}` + "\n":                false,
		"Use \"tool [command] --help\" for more.\n":   false,
		"tool 1.2.3\n":                                false,
		"Deployed. Run 'tool status' to follow it.\n": false,
		"": false,
	} {
		if got := promptAtEnd([]byte(out)) != ""; got != want {
			t.Errorf("promptAtEnd(%q) = %v, want %v", out, got, want)
		}
	}
}

// TestPhoneHome: update checks and telemetry are told by where they go;
// an API call, a login or a download of the command's own work is neither.
func TestPhoneHome(t *testing.T) {
	for request, want := range map[string]string{
		"DNS telemetry.example.com.":                          "telemetry",
		"POST http://api.segment.io/v1/batch":                 "telemetry",
		"CONNECT o123.ingest.sentry.io:443":                   "telemetry",
		"GET http://registry.npmjs.org/neonctl/latest":        "update check",
		"CONNECT api.github.com:443":                          "",
		"GET http://api.github.com/repos/cli/cli/releases":    "update check",
		"CONNECT console.neon.tech:443":                       "",
		"GET http://api.resend.com/emails":                    "",
		"DNS api.firecrawl.dev.":                              "",
		"CONNECT checkpoint-api.hashicorp.com:443":            "",
		"GET http://example.com/v1/items?updated_since=today": "",
		"GET http://cli.example.com/v2/version":               "update check",
	} {
		if got := phoneHome(request); got != want {
			t.Errorf("phoneHome(%q) = %q, want %q", request, got, want)
		}
	}
}

// TestHasColour: colour is a foreground or background in an SGR sequence;
// moving the cursor or bold text is not.
func TestHasColour(t *testing.T) {
	for out, want := range map[string]bool{
		"\x1b[31merror\x1b[0m":                      true,
		"\x1b[1;32mok\x1b[0m":                       true,
		"\x1b[38;5;208mtext":                        true,
		"\x1b[48:2::10:20:30mtext":                  true,
		"\x1b7\x1b[r\x1b8\x1b[?25hNo\x1b[4Gplugins": false,
		"\x1b[1mbold\x1b[0m":                        false,
		"plain":                                     false,
	} {
		if got := hasColour([]byte(out)); got != want {
			t.Errorf("hasColour(%q) = %v, want %v", out, got, want)
		}
	}
}
