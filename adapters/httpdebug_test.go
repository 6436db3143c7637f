package adapters_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/nethttp"
	"github.com/duet-cli/duet/schema"
)

// TestDebugTracesHTTP: under --debug the trace on stderr has every HTTP
// request a command makes through nethttp — method, URL, headers — and its
// response, with credential headers and a URL's password [REDACTED] and a
// secret flag's value nowhere; stdout is the one envelope; without --debug
// no request is traced (O-008, F-051).
func TestDebugTracesHTTP(t *testing.T) {
	const token, cookie, password = "sk-canary-123", "sess-canary-456", "pw-canary-789"
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "s", Value: cookie})
		io.WriteString(w, "deployed")
	}))
	defer server.Close()
	newApp := func() *cli.Command {
		deploy := &cli.Command{Name: "deploy", Flags: []cli.Flag{&cli.StringFlag{Name: "api-key"}},
			Action: func(ctx context.Context, c *cli.Command) error {
				client, err := nethttp.Client(ctx)
				if err != nil {
					return err
				}
				u := strings.Replace(server.URL, "http://", "http://deployer:"+password+"@", 1) + "/deploy?target=prod"
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
				req.Header.Set("Authorization", "Bearer "+c.String("api-key"))
				req.Header.Set("X-Api-Key", c.String("api-key"))
				req.Header.Set("Accept", "text/plain")
				resp, err := client.Do(req)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				envelope.From(ctx).Effect(envelope.Created)
				return envelope.From(ctx).Result(map[string]string{"status": string(body)})
			}}
		urfave.Annotate(deploy, schema.Meta{Danger: schema.Mutating, Network: true, Flags: map[string]schema.FlagMeta{"api-key": {Sensitive: true}}})
		return &cli.Command{Name: "app", Commands: []*cli.Command{deploy}}
	}
	home := t.TempDir()
	env := []urfave.Option{adapters.WithEnv([]string{"CLAUDECODE=1", "HOME=" + home, "DEPLOY_KEY=" + token, "APP_AUDIT_LOG=1"})}
	r := runAgentIn(t, home, newApp(), env, "deploy", "--api-key-from-env", "DEPLOY_KEY", "--debug")
	w := wantOK(t, r)
	if !strings.Contains(string(w.Data), "deployed") {
		t.Errorf("data %s", w.Data)
	}
	for _, want := range []string{"http request", "POST", "/deploy?target=prod", "Accept", "text/plain", "Authorization", "X-Api-Key", envelope.Redacted, "http response", "200"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the --debug trace lacks %q:\n%s", want, r.stderr)
		}
	}
	for _, secret := range []string{token, cookie, password} {
		if strings.Contains(r.stderr+r.stdout, secret) {
			t.Errorf("%q shows under --debug:\n%s", secret, r.stderr)
		}
	}
	audit, err := os.ReadFile(filepath.Join(home, ".local", "state", "app", "audit.jsonl"))
	if err != nil || strings.Contains(string(audit), token) || !strings.Contains(string(audit), `"api-key-from-env":"[REDACTED]"`) {
		t.Errorf("the audit log of a --debug run (%v):\n%s", err, audit)
	}
	r = runAgentIn(t, home, newApp(), env, "deploy", "--api-key-from-env", "DEPLOY_KEY")
	wantOK(t, r)
	if strings.Contains(r.stderr, "http request") {
		t.Errorf("a request is traced without --debug:\n%s", r.stderr)
	}
}
