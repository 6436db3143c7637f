package schema

import "github.com/duet-cli/duet/internal/jsonw"

// What a command declares about the programs it starts (package proc):
// the program its input is passed to (the spec's C-019), its locale, and a
// process meant to outlive it (C-010).

// documentProc adds the child-process declarations to d. flags are the
// document's flags.
func (c *Command) documentProc(d *Doc, flags []*Flag) {
	var user []string
	for _, f := range flags {
		if f.Subprocess {
			user = append(user, f.Name)
		}
	}
	for _, a := range c.Args {
		if a.Subprocess {
			user = append(user, a.Name)
		}
	}
	if sp := c.Meta.Subprocess; sp.Binary != "" || len(user) > 0 {
		d.Subprocess = &SubprocessEntry{
			Binary:             sp.Binary,
			UserControlledArgs: append([]string{}, user...),
			HardcodedArgs:      append([]string{}, sp.Hardcoded...),
		}
	}
	d.PreserveLocale = c.Meta.PreserveLocale
	if b := c.Meta.Background; b != nil {
		d.SpawnsBackgroundProcess = true
		d.CleanupCommand = b.CleanupCommand
		d.MaxLifetimeSeconds = int64(b.MaxLifetime.Seconds())
	}
	if c.Meta.ChildLog {
		d.Stderr = StderrChildLog
	}
}

// StderrChildLog is the manifest's word for a command that streams a
// wrapped program's log to stderr (Meta.ChildLog).
const StderrChildLog = "child_log"

// appendProc appends the child-process members of d, in the order of its
// fields.
func (d Doc) appendProc(b []byte) []byte {
	if s := d.Subprocess; s != nil {
		b = append(b, `,"subprocess":{"binary":`...)
		b = jsonw.String(b, s.Binary)
		b = append(b, `,"user_controlled_args":`...)
		b = nullableStrings(b, s.UserControlledArgs)
		b = append(b, `,"hardcoded_args":`...)
		b = nullableStrings(b, s.HardcodedArgs)
		b = append(b, '}')
	}
	if d.PreserveLocale {
		b = append(b, `,"preserve_locale":true`...)
	}
	if d.SpawnsBackgroundProcess {
		b = append(b, `,"spawns_background_process":true`...)
	}
	if d.CleanupCommand != "" {
		b = append(b, `,"cleanup_command":`...)
		b = jsonw.String(b, d.CleanupCommand)
	}
	if d.MaxLifetimeSeconds != 0 {
		b = append(b, `,"max_lifetime_seconds":`...)
		b = jsonw.Int(b, d.MaxLifetimeSeconds)
	}
	if d.Stderr != "" {
		b = append(b, `,"stderr":`...)
		b = jsonw.String(b, d.Stderr)
	}
	return b
}
