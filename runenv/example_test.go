package runenv_test

import (
	"context"
	"fmt"
	"net/url"

	"github.com/duet-cli/duet/runenv"
)

// A command asks its invocation which proxy a request goes through. Outside
// an invocation (here) the process's environment is read; inside one, the
// environment the lifecycle was given, --proxy and --no-proxy.
func ExampleFrom() {
	env := runenv.From(context.Background())
	u, _ := url.Parse("https://localhost:8443/health")
	proxy, source, err := env.Proxy.For(u)
	fmt.Printf("proxy %q source %q err %v\n", proxy, source, err)
	fmt.Println(runenv.StateDir("tool", "agent-1", func(k string) string {
		return map[string]string{"TOOL_CONFIG_DIR": "/cfg"}[k]
	}))
	// Output:
	// proxy "" source "" err <nil>
	// /cfg/instances/agent-1
}
