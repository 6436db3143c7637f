// Package fidelity holds real third-party apps, fetched from the Go module
// proxy, to the promise Duet makes on adoption: wrapped in one line, an app
// is the same app for a person and a script, and gets one envelope for an
// agent. Its tests build each app twice — as published, and with its main
// changed by that one line — and run the app's own tests and typical
// invocations against both:
//
//   - yq v4.54.2 (cobra, `cmd.Execute()` → `duetcobra.Main(cmd, ...)`): its
//     acceptance suite, and typical invocations at a terminal, in a pipe and
//     for an agent;
//   - wit-bindgen-go v0.7.0 (urfave/cli v3, `Command.Run(ctx, os.Args)` →
//     `urfave.Exec(ctx, Command, os.Args)`): its own tests with its command
//     wrapped, and typical invocations;
//   - dasel v2.8.1 (cobra, `cmd.Execute()` → `duetcobra.Exec(cmd)`, exiting
//     with adapters.ExitCode): its own 77 tests of its command tree with
//     every Execute going through duetcobra.Exec, plainly and for an agent,
//     wrapped and again with select and put ported; typical invocations at
//     a terminal, in a pipe and for an agent;
//   - nvidia-ctk v1.20.2, the NVIDIA Container Toolkit's CLI (urfave/cli v3,
//     `c.Run(ctx, os.Args)` → `urfave.Exec(ctx, &c, os.Args)`, exiting with
//     adapters.ExitCode): its own tests of `runtime configure` with every
//     run going through urfave.Exec, plainly and for an agent, wrapped and
//     again with `cdi list` and `runtime configure` ported; typical
//     invocations at a terminal, in a pipe and for an agent.
//
// A test skips, saying so, when the module proxy cannot be reached.
package fidelity
