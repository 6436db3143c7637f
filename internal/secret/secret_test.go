package secret_test

import (
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/secret"
)

func TestName(t *testing.T) {
	for name, want := range map[string]bool{
		"token": true, "API_TOKEN": true, "client_secret": true, "Password": true, "passwd": true,
		"credentials": true, "Authorization": true, "apikey": true, "api-key": true, "KEY": true, "ssh.key": true,
		"monkey": false, "keys": false, "user": false, "name": false, "": false,
	} {
		if got := secret.Name(name); got != want {
			t.Errorf("Name(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestWordsCover: every name Name calls secret holds one of Words, so a
// text without any of them holds no secret name.
func TestWordsCover(t *testing.T) {
	for _, name := range []string{"token", "x_secret", "PASSWORD", "passwd", "credential", "oauth", "apikey", "api-key", "key"} {
		if !secret.Name(name) {
			t.Fatalf("Name(%q) = false", name)
		}
		lower := strings.ToLower(name)
		found := false
		for w := range secret.Words {
			found = found || strings.Contains(lower, w)
		}
		if !found {
			t.Errorf("%q is secret, but holds none of Words", name)
		}
	}
}

// TestShapes: a value that shows a secret by its shape is redacted
// whatever its name; the text around it, and the rest, stay.
func TestShapes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"postgres://app:s3cr3t@db:5432/x", "postgres://app:[R]@db:5432/x"},
		{"HTTPS_PROXY=http://u:p%40ss@proxy:3128", "HTTPS_PROXY=http://u:[R]@proxy:3128"},
		{"token ghp_" + strings.Repeat("a1B2", 9) + " used", "token [R] used"},
		{"github_pat_11ABCDEFG0123456789_abcdefghij", "[R]"},
		{"key=sk-proj-abcdefghijklmnop1234", "key=[R]"},
		{"xoxb-1234567890-abcdefghij", "[R]"},
		{"AKIAIOSFODNN7EXAMPLE", "[R]"},
		{"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib3QifQ.c2ln", "Bearer [R]"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nafter", "[R]\nafter"},
		{"https://example.com/path", "https://example.com/path"},
		{"a plain sentence with no-secret in it", "a plain sentence with no-secret in it"},
		{"sk-short", "sk-short"},
		// assigned to a secret name, as a .env, YAML, JSON or a query has it
		{"API_KEY=hunter2hunter2", "API_KEY=[R]"},
		{`"GITHUB_TOKEN=abc123"`, `"GITHUB_TOKEN=[R]"`},
		{"password: swordfish", "password: [R]"},
		{`{"client_secret": "s3cr3t", "name": "x"}`, `{"client_secret": "[R]", "name": "x"}`},
		{"https://api.example/v1?access_token=abc123&page=2", "https://api.example/v1?access_token=[R]&page=2"},
		{"unknown key: status", "unknown key: status"},
		{"priority=high, title=x", "priority=high, title=x"},
		// random enough to be a key, whatever it is called
		{"RANDOM=Zx9qK2mVb7TfLp4sNw8RhYc3JdGa6EuQ", "RANDOM=[R]"},
		{"commit 3f9a1c2b7e5d4f6a8b0c1d2e3f4a5b6c7d8e9f0a", "commit 3f9a1c2b7e5d4f6a8b0c1d2e3f4a5b6c7d8e9f0a"},
		{"session a0f7e55d-6ed2-4c44-a2a3-ebfd5cfda08c", "session a0f7e55d-6ed2-4c44-a2a3-ebfd5cfda08c"},
		{"run 01ARZ3NDEKTSV4RRFFQ69G5FAV", "run 01ARZ3NDEKTSV4RRFFQ69G5FAV"},
		{"the_quick_brown_fox_jumps_over_the_lazy_dog", "the_quick_brown_fox_jumps_over_the_lazy_dog"},
		{"TestE2EMCPFilesStayInProject2024", "TestE2EMCPFilesStayInProject2024"},
		{"/tmp/TestDebugLogsArgv3620335357/001/child", "/tmp/TestDebugLogsArgv3620335357/001/child"},
		{"Authorization: Bearer abc.def", "Authorization: Bearer abc.def"},
		{"key=[BASE64: 48 bytes]", "key=[BASE64: 48 bytes]"},
	} {
		if got := secret.Shapes(tt.in, "[R]"); got != tt.want {
			t.Errorf("secret.Shapes(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestMayHold: MayHold is true wherever Shapes would change the text.
func TestMayHold(t *testing.T) {
	for _, s := range []string{
		"postgres://u:pw@db/x", "ghp_0123456789abcdefABCDEF0123456789abcd", "password=hunter2", "Zx9qK2mVb7TfLp4sNw8RhYc3JdGa6EuQ",
	} {
		if secret.Shapes(s, "[R]") == s {
			t.Errorf("Shapes(%q) masks nothing: the case no longer tests MayHold", s)
		}
		if !secret.MayHold([]byte(s)) {
			t.Errorf("MayHold(%q) = false, yet Shapes masks %q", s, secret.Shapes(s, "[R]"))
		}
	}
	for _, s := range []string{"id t1, 2026-11-29", "https://example.com/a/b", "a-long-but-ordinary-hyphenated-name-here"} {
		if secret.Shapes(s, "[R]") != s && !secret.MayHold([]byte(s)) {
			t.Errorf("MayHold(%q) = false, yet Shapes masks %q", s, secret.Shapes(s, "[R]"))
		}
	}
	if secret.MayHold([]byte("plain words")) {
		t.Error(`MayHold("plain words") = true`)
	}
}
