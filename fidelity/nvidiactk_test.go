package fidelity

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/fidelitytest"

	// The wrapped nvidia-ctk is built from this checkout as the test runs;
	// importing the adapter makes go test's cache miss whenever it changes.
	_ "github.com/duet-cli/duet/adapters/urfave"
)

var nvidiaCTK, nvidiaCTKPorted once

// nvidiaCTKMain wraps nvidia-ctk, the NVIDIA Container Toolkit's CLI, at
// v1.20.2 (urfave/cli v3) as the README's "Adopting" says for an app that
// keeps its own main: its `c.Run(ctx, os.Args)` becomes
// `urfave.Exec(ctx, &c, os.Args)`, its error logging is kept for what Duet
// did not answer, and it exits with the code Duet answered with where it
// exited 1.
var nvidiaCTKMain = [][3]string{
	{"cmd/nvidia-ctk/main.go", `	err := c.Run(context.Background(), os.Args)
	if err != nil {
		logger.Errorf("%v", err)
		os.Exit(1)
	}`, `	err := urfave.Exec(context.Background(), &c, os.Args)
	if err != nil {
		var answered *adapters.ExitError
		if !errors.As(err, &answered) {
			logger.Errorf("%v", err)
		}
		os.Exit(adapters.ExitCode(err))
	}`},
	{"cmd/nvidia-ctk/main.go", `import (
`, `import (
	"errors"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
`},
}

// nvidiaCTKPort ports two of nvidia-ctk's commands: `cdi list`, which
// reads, declared safe, and `runtime configure`, which writes an engine's
// config, declared mutating and reporting what it changed — the config
// updated, or nothing when --dry-run prints it instead. Their output is
// nvidia-ctk's own.
var nvidiaCTKPort = [][3]string{
	{"cmd/nvidia-ctk/cdi/list/list.go", "\treturn &c\n", "\treturn urfave.Annotate(&c, schema.Meta{Danger: schema.Safe})\n"},
	{"cmd/nvidia-ctk/cdi/list/list.go", "import (\n", "import (\n\t\"github.com/duet-cli/duet/adapters/urfave\"\n\t\"github.com/duet-cli/duet/schema\"\n"},
	{"cmd/nvidia-ctk/runtime/configure/configure.go", `		Action: func(ctx context.Context, cmd *cli.Command) error {
			return m.configureWrapper(&config)
		},`, `		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := m.configureWrapper(&config); err != nil {
				return err
			}
			if config.dryRun {
				envelope.From(ctx).Effect(envelope.Noop)
			} else {
				envelope.From(ctx).Effect(envelope.Updated)
			}
			return nil
		},`},
	{"cmd/nvidia-ctk/runtime/configure/configure.go", "\treturn &configure\n", "\treturn urfave.Annotate(&configure, schema.Meta{Danger: schema.Mutating})\n"},
	{"cmd/nvidia-ctk/runtime/configure/configure.go", "import (\n", "import (\n\t\"github.com/duet-cli/duet/adapters/urfave\"\n\t\"github.com/duet-cli/duet/envelope\"\n\t\"github.com/duet-cli/duet/schema\"\n"},
}

// nvidiaCTKVariants are nvidia-ctk wrapped (its main changed), and wrapped
// with two commands ported.
var nvidiaCTKVariants = []struct {
	name   string
	builds func(*testing.T) builds
}{
	{"wrapped", nvidiaCTKBuilds},
	{"ported", nvidiaCTKPortedBuilds},
}

func nvidiaCTKBuilds(t *testing.T) builds {
	t.Helper()
	return nvidiaCTK.get(t, func() (builds, error) {
		a, err := fetch("github.com/NVIDIA/nvidia-container-toolkit", "v1.20.2")
		if err != nil {
			return builds{}, err
		}
		return a.adoptAndBuild("./cmd/nvidia-ctk", "nvidia-ctk", nvidiaCTKMain...)
	})
}

func nvidiaCTKPortedBuilds(t *testing.T) builds {
	t.Helper()
	return nvidiaCTKPorted.get(t, func() (builds, error) {
		a, err := fetchAs("github.com/NVIDIA/nvidia-container-toolkit", "v1.20.2", "nvidia-ctk-ported")
		if err != nil {
			return builds{}, err
		}
		return a.adoptAndBuild("./cmd/nvidia-ctk", "nvidia-ctk-ported", append(slices.Clone(nvidiaCTKMain), nvidiaCTKPort...)...)
	})
}

// TestNvidiaCTKOwnTests runs nvidia-ctk's own tests of `runtime configure`
// — 15 runs of a root built around the command, configuring containerd,
// CRI-O and docker in a temporary root and checking the files written —
// with every app.Run routed through urfave.Exec: plainly, and with
// CLAUDECODE=1 set, as a coding agent runs an adopter's tests (Duet then
// answers each call; the suite must still pass). The installer's tests
// (cmd/nvidia-ctk-installer) are left out: the module's zip ships without
// their testdata, and they fail unwrapped.
func TestNvidiaCTKOwnTests(t *testing.T) {
	for _, v := range nvidiaCTKVariants {
		b := v.builds(t)
		const file = "cmd/nvidia-ctk/runtime/configure/configure_test.go"
		p := filepath.Join(b.app.dir, file)
		orig, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(p, orig, 0o644)
		for _, e := range [][2]string{
			// TestConfigureLifecycle's call, after a blank line; then
			// TestConfigureCommandLineSource's, the one left.
			{"\n\n\t\t\terr := app.Run(context.Background(), fullArgs)", "\n\n\t\t\terr := urfave.Exec(context.Background(), app, fullArgs)"},
			{"err := app.Run(context.Background(), fullArgs)", "err := urfave.Exec(context.Background(), app, fullArgs)"},
			{"import (\n", "import (\n\t\"github.com/duet-cli/duet/adapters/urfave\"\n"},
		} {
			if err := b.app.edit(file, e[0], e[1]); err != nil {
				t.Fatal(err)
			}
		}
		b.app.ownTests(t, "nvidia-ctk", v.name, "./cmd/nvidia-ctk/runtime/configure/", "urfave.Exec", 17)
	}
}

// nvidiaCTKFiles are the files every invocation finds in its working
// directory: a container engine's config for each runtime, the toolkit's
// own config, a CDI spec directory, a broken one, and a CDI spec to
// transform.
var nvidiaCTKFiles = map[string]string{
	"daemon.json": `{"data-root": "/var/lib/docker", "log-level": "warn"}`,
	"containerd.toml": `version = 2

[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"

  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"

    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      SystemdCgroup = true
`,
	"config.toml": `[nvidia-container-cli]
ldconfig = "@/sbin/ldconfig"
no-cgroups = false

[nvidia-container-runtime]
log-level = "info"
`,
	"cdi/example.yaml": `cdiVersion: 0.5.0
kind: example.com/gpu
devices:
- name: gpu0
  containerEdits:
    env: [GPU=0]
- name: all
  containerEdits:
    env: [GPU=all]
`,
	"bad/broken.yaml": "::: not a CDI spec\n",
	"spec.yaml":       nvidiaCTKSpec,
}

const nvidiaCTKSpec = `cdiVersion: 0.5.0
kind: example.com/gpu
devices:
- name: gpu0
  containerEdits:
    deviceNodes:
    - path: /dev/nvidia0
      hostPath: /driver/dev/nvidia0
containerEdits:
  mounts:
  - hostPath: /driver/usr/lib/libcuda.so.1
    containerPath: /usr/lib/libcuda.so.1
`

// nvidiaCTKCases are nvidia-ctk invocations as people type them: none
// needs a GPU, root or the network, and none reads or writes the system's
// container engine configs or CDI directories — every path is one in the
// working directory.
var nvidiaCTKCases = []fidelitytest.Case{
	{},
	{Args: []string{"--help"}},
	{Args: []string{"--version"}},
	{Args: []string{"-v"}},
	{Args: []string{"help", "runtime"}},
	{Args: []string{"runtime"}}, // a group without its command shows its help
	{Args: []string{"runtime", "configure", "--help"}},
	{Args: []string{"cdi", "-h"}},
	{Args: []string{"cdi", "list", "--help"}},
	{Args: []string{"help", "config"}},
	{Args: []string{"runtime", "configure", "--runtime=docker", "--config=daemon.json", "--dry-run"}},
	{Args: []string{"runtime", "configure", "--runtime=docker", "--config=daemon.json", "--nvidia-set-as-default", "--enable-cdi"}},
	{Args: []string{"runtime", "configure", "--runtime=containerd", "--config=containerd.toml", "--dry-run", "--enable-cdi"}},
	{Args: []string{"runtime", "configure", "--runtime=crio", "--config=crio.conf", "--drop-in-config=", "--dry-run"}},
	{Args: []string{"runtime", "configure", "--runtime=docker", "--config=daemon.json", "--config-mode=oci-hook", "--oci-hook-path=hook.json"}},
	{Args: []string{"runtime", "configure", "--runtime=nope", "--config=daemon.json", "--dry-run"}},
	{Args: []string{"runtime", "configure", "--runtime=docker", "--config=daemon.json", "--drop-in-config=/nvidia.json"}},
	{Args: []string{"runtime", "configure", "--config-mode=oci-hook", "--nvidia-runtime-hook-path=relative"}},
	{Args: []string{"runtime", "configure", "--runtime"}},
	{Args: []string{"runtime", "configure", "--nope"}},
	{Args: []string{"runtime", "nope"}},
	{Args: []string{"nope"}},
	{Args: []string{"--nope"}},
	{Args: []string{"cdi", "list", "--spec-dir=cdi"}},
	{Args: []string{"cdi", "list", "--spec-dir=bad"}},
	{Args: []string{"--quiet", "cdi", "list"}, Env: []string{"NVIDIA_CTK_CDI_SPEC_DIRS=cdi"}},
	{Args: []string{"cdi", "list", "--spec-dir"}},
	{Args: []string{"cdi", "transform", "root", "--from=/driver", "--to=/", "--input=spec.yaml"}},
	{Args: []string{"cdi", "transform", "root", "--from=/driver", "--to=/", "--input=spec.yaml", "--output=out.yaml"}},
	{Name: "cdi transform root --from=/driver --to=/ --input=- <spec.yaml", Args: []string{"cdi", "transform", "root", "--from=/driver", "--to=/", "--input=-"}, Stdin: nvidiaCTKSpec},
	{Args: []string{"cdi", "transform", "root", "--from=/driver", "--to=/", "--input=missing.yaml"}},
	{Args: []string{"cdi", "transform", "root", "--relative-to=nope", "--input=spec.yaml"}},
	{Args: []string{"config", "--config-file=config.toml"}},
	{Args: []string{"config", "-c", "config.toml", "--set", "nvidia-container-runtime.log-level=debug", "-o", "out.toml"}},
	{Args: []string{"config", "-c", "config.toml", "-i", "--set", "nvidia-container-cli.no-cgroups"}},
	{Args: []string{"config", "-c", "config.toml", "--set", "nope.key=1"}},
	{Args: []string{"config", "default"}},
}

func nvidiaCTKCase(c fidelitytest.Case) fidelitytest.Case {
	c.Files = nvidiaCTKFiles
	return c
}

// nvidiaCTKName names c's subtest: its environment and its command line.
func nvidiaCTKName(c fidelitytest.Case) string {
	if c.Name != "" {
		return c.Name
	}
	return strings.Join(append(append([]string{}, c.Env...), c.Args...), " ")
}

// logTime is the time logrus starts each line it logs to a pipe with: to
// the second, so that two runs a moment apart may differ in it.
var logTime = regexp.MustCompile(`(?m)^time="[^"]*" `)

// TestNvidiaCTKScript: a script gets from the wrapped nvidia-ctk what it
// gets from nvidia-ctk: stdout, stderr, exit code and files. This is
// fidelitytest.SameForScript but for the time on each line nvidia-ctk logs
// (logrus's, to the second), which is left out of the comparison.
func TestNvidiaCTKScript(t *testing.T) {
	b := nvidiaCTKBuilds(t)
	for _, c := range nvidiaCTKCases {
		t.Run(nvidiaCTKName(c), func(t *testing.T) {
			t.Parallel()
			c, dir := nvidiaCTKCase(c), t.TempDir()
			want := fidelitytest.RunIn(t, dir, b.bare, c)
			got := fidelitytest.RunIn(t, dir, b.wrapped, c)
			want.Stderr = logTime.ReplaceAllString(want.Stderr, `time="…" `)
			got.Stderr = logTime.ReplaceAllString(got.Stderr, `time="…" `)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: a script gets something else from the wrapped build (-bare +wrapped):\n%s", nvidiaCTKName(c), diff)
			}
		})
	}
}

// TestNvidiaCTKPerson: a person at a terminal sees the same (logrus shows
// seconds since the start there, not the time). An invocation that reads
// stdin is left out: a terminal never ends it.
func TestNvidiaCTKPerson(t *testing.T) {
	b := nvidiaCTKBuilds(t)
	for _, c := range nvidiaCTKCases {
		if c.Stdin != "" {
			continue
		}
		t.Run(nvidiaCTKName(c), func(t *testing.T) {
			fidelitytest.SameForPerson(t, b.bare, b.wrapped, nvidiaCTKCase(c), "")
		})
	}
}

// TestNvidiaCTKAgent: an agent gets one envelope for every invocation, with
// what nvidia-ctk printed — a docker config as its JSON document, any other
// output as text — the files it wrote, and its exit code: its own where it
// gives one, a non-zero one where it exits 1 for every failure, and
// UNKNOWN_COMMAND's 2 where urfave's help exits 3 for a command that is not
// there. Help goes to stderr, the envelope saying meta.help. --version is
// the one line the CLI Agent Spec asks of it for every reader (REQ-F-068's
// wire format), not an envelope: the line nvidia-ctk prints.
func TestNvidiaCTKAgent(t *testing.T) {
	for _, v := range nvidiaCTKVariants {
		testNvidiaCTKAgent(t, v.name, v.builds(t))
	}
}

func testNvidiaCTKAgent(t *testing.T, variant string, b builds) {
	for _, c := range nvidiaCTKCases {
		t.Run(variant+"/"+nvidiaCTKName(c), func(t *testing.T) {
			t.Parallel()
			c := nvidiaCTKCase(c)
			script := fidelitytest.Run(t, b.bare, c)
			if len(c.Args) == 1 && (c.Args[0] == "--version" || c.Args[0] == "-v") {
				agent := c
				agent.Env = append(agent.Env[:len(agent.Env):len(agent.Env)], fidelitytest.Agent)
				got := fidelitytest.Run(t, b.wrapped, agent)
				if got.Stdout != script.Stdout || got.Exit != 0 {
					t.Errorf("%s for an agent: exit %d, %q; want the one line a script gets, %q", c.Args[0], got.Exit, got.Stdout, script.Stdout)
				}
				return
			}
			help := script.Exit == 0 && strings.HasPrefix(script.Stdout, "NAME:")
			switch env, got := fidelitytest.ForAgent(t, b.wrapped, c); {
			case help:
				if got.Exit != 0 || env.Meta["help"] != true || !strings.Contains(got.Stderr, "USAGE:") {
					t.Errorf("%q: exit %d for an agent, meta.help %v, help on stderr %q", c.Args, got.Exit, env.Meta["help"], got.Stderr)
				}
			case script.Exit == 0:
				fidelitytest.SameForAgent(t, b.bare, b.wrapped, c, 0, "")
			case script.Exit == 3 && strings.HasPrefix(script.Stderr, "No help topic for "):
				fidelitytest.SameForAgent(t, b.bare, b.wrapped, c, 2, "UNKNOWN_COMMAND")
			case script.Exit != 1 && got.Exit != script.Exit, script.Exit == 1 && got.Exit == 0:
				t.Errorf("%q: exit %d for an agent, %d for a script", c.Args, got.Exit, script.Exit)
			}
		})
	}
}
