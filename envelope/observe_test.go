package envelope_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
)

// TestSecretNames: what --debug and the audit log redact by name — the
// spec's environment patterns (F-051), credential headers, and any name
// with token, secret, password, credential, auth or key in it (F-034),
// case-insensitively.
func TestSecretNames(t *testing.T) {
	env := map[string]bool{
		"AWS_SECRET_ACCESS_KEY": true, "GITHUB_TOKEN": true, "DB_PASSWORD": true, "SMTP_PASS": true,
		"API_BASE": true, "AUTH_DOMAIN": true, "my_api_key": true,
		"HOME": false, "PATH": false, "KEYBOARD": false, "PASSAGE": false, "TERM": false,
	}
	for name, want := range env {
		if got := envelope.SecretEnv(name); got != want {
			t.Errorf("SecretEnv(%q) = %v, want %v", name, got, want)
		}
	}
	headers := map[string]bool{
		"Authorization": true, "proxy-authorization": true, "Cookie": true, "Set-Cookie": true,
		"X-Api-Key": true, "X-AUTH-TOKEN": true, "X-Session-Token": true,
		"Content-Type": false, "Accept": false, "X-Request-Id": false,
	}
	for name, want := range headers {
		if got := envelope.SecretHeader(name); got != want {
			t.Errorf("SecretHeader(%q) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{"api-token": true, "Password": true, "client_credential": true, "sort-key": true, "monkey": false, "region": false} {
		if got := envelope.SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestRedactEnv: a dump of the environment shows secret variables and
// high-entropy values as placeholders, everything else as it is.
func TestRedactEnv(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiJ9." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"u1"}`)) + ".c2ln"
	got := envelope.RedactEnv([]string{"AWS_SECRET_ACCESS_KEY=abc", "HOME=/home/x", "SESSION=" + jwt, "EMPTY="})
	want := []string{"AWS_SECRET_ACCESS_KEY=" + envelope.Redacted, "HOME=/home/x", "SESSION=[JWT: sub=u1]", "EMPTY="}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RedactEnv (-want +got):\n%s", diff)
	}
}

// TestMaskValue: a JWT, dense base64 of 40 characters or more, and any
// declared value are summarised (F-058); words, hashes and paths are not.
func TestMaskValue(t *testing.T) {
	b := make([]byte, 192)
	for i := range b {
		b[i] = byte(i*73 + i*i*31 + 17)
	}
	jwt := "eyJhbGciOiJIUzI1NiJ9." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"user_123","exp":1710169200}`)) + ".c2lnbmF0dXJl"
	tests := []struct {
		in       string
		declared bool
		want     string
		masked   bool
	}{
		{jwt, false, "[JWT: sub=user_123, exp=2024-03-11T15:00:00Z]", true},
		{base64.StdEncoding.EncodeToString(b), false, "[BASE64: 192 bytes]", true},
		{"ghp_abcdefgh12345678", true, "[KEY: ghp_abcd...]", true},
		{"ghp_abcdefgh12345678", false, "", false},
		{"0123456789abcdef0123456789abcdef01234567", false, "", false},
		{"/home/someone/projects/SomeProject2024/internal/handlers", false, "", false},
		{"", true, "", false},
	}
	for _, tt := range tests {
		got, masked := envelope.MaskValue(tt.in, tt.declared)
		if got != tt.want || masked != tt.masked {
			t.Errorf("MaskValue(%.20q…, %v) = %q, %v; want %q, %v", tt.in, tt.declared, got, masked, tt.want, tt.masked)
		}
	}
}

// TestPath: a Path in data encodes absolute and cleaned, a relative one
// against the process's working directory.
func TestPath(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[envelope.Path]string{
		"notes/a.txt": filepath.Join(wd, "notes", "a.txt"),
		"./x/../y":    filepath.Join(wd, "y"),
		"/tmp//z/./w": "/tmp/z/w",
		"":            "",
	} {
		raw, err := json.Marshal(map[string]envelope.Path{"p": in})
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]string
		json.Unmarshal(raw, &got)
		if got["p"] != want {
			t.Errorf("Path(%q) encodes as %q, want %q", in, got["p"], want)
		}
	}
}

func ExampleMaskValue() {
	jwt := "eyJhbGciOiJIUzI1NiJ9." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"user_123","exp":1710169200}`)) + ".c2lnbmF0dXJl"
	fmt.Println(envelope.MaskValue(jwt, false))
	fmt.Println(envelope.MaskValue("ghp_abcdefgh12345678", true))
	fmt.Println(envelope.MaskValue("a plain sentence", false))
	// Output:
	// [JWT: sub=user_123, exp=2024-03-11T15:00:00Z] true
	// [KEY: ghp_abcd...] true
	//  false
}
