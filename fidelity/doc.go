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
//     wrapped, and typical invocations.
//
// A test skips, saying so, when the module proxy cannot be reached.
package fidelity
