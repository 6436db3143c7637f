package schema

import (
	"reflect"
	"strconv"

	"github.com/duet-cli/duet/internal/jsonw"
)

// The documents encode themselves, byte for byte as encoding/json would from
// their struct tags (a test holds them to it): describe writes one per command,
// and reflection made a 1,000-command manifest several times slower.

// MarshalJSON encodes the document.
func (d Doc) MarshalJSON() ([]byte, error) { return d.AppendJSON(nil) }

// AppendJSON appends the document's encoding to b. It fails only on a value
// JSON cannot hold, such as a NaN in an output schema.
func (d Doc) AppendJSON(b []byte) ([]byte, error) { return new(DocEncoder).Append(b, d) }

// A DocEncoder appends documents, encoding each distinct output schema and
// exit-code table once: the commands of a tool mostly share them (the default
// tables are shared values), and they are the bulk of a document. Values are
// recognised by identity, so a schema must not change while one encoder is in
// use. The zero value is ready to use.
type DocEncoder struct {
	memo map[uintptr][]byte
}

// shared appends the encoding of the map m, made by enc the first time.
func (e *DocEncoder) shared(b []byte, m any, enc func([]byte) ([]byte, error)) ([]byte, error) {
	id := reflect.ValueOf(m).Pointer()
	if raw, ok := e.memo[id]; ok {
		return append(b, raw...), nil
	}
	start := len(b)
	b, err := enc(b)
	if err != nil {
		return b, err
	}
	if e.memo == nil {
		e.memo = map[uintptr][]byte{}
	}
	e.memo[id] = b[start:len(b):len(b)]
	return b, nil
}

// Append appends d's encoding to b.
func (e *DocEncoder) Append(b []byte, d Doc) ([]byte, error) {
	var err error
	b = append(b, `{"command":`...)
	b = jsonw.String(b, d.Command)
	b = append(b, `,"description":`...)
	b = jsonw.String(b, d.Description)
	if len(d.Aliases) > 0 {
		b = append(b, `,"aliases":`...)
		b = jsonw.Strings(b, d.Aliases)
	}
	b = append(b, `,"danger_level":`...)
	b = jsonw.String(b, string(d.DangerLevel))
	if d.Audience != "" {
		b = append(b, `,"audience":`...)
		b = jsonw.String(b, string(d.Audience))
	}
	b = append(b, `,"runnable":`...)
	b = jsonw.Bool(b, d.Runnable)
	if d.List {
		b = append(b, `,"list":true`...)
	}
	if d.RequiresConfirmation {
		b = append(b, `,"requires_confirmation":true`...)
	}
	if d.TimeoutMS != 0 {
		b = append(b, `,"timeout_ms":`...)
		b = jsonw.Int(b, d.TimeoutMS)
	}
	if d.LongRunning {
		b = append(b, `,"long_running":true`...)
	}
	if d.Protocol != "" {
		b = append(b, `,"protocol":`...)
		b = jsonw.String(b, d.Protocol)
	}
	b = append(b, `,"flags":`...)
	b = jsonw.MapFunc(b, d.Flags, FlagEntry.AppendJSON)
	if len(d.Arguments) > 0 {
		b = append(b, `,"arguments":[`...)
		for i, a := range d.Arguments {
			if i > 0 {
				b = append(b, ',')
			}
			b = a.AppendJSON(b)
		}
		b = append(b, ']')
	}
	if len(d.FlagGroups) > 0 {
		b = append(b, `,"flag_groups":[`...)
		for i, g := range d.FlagGroups {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"kind":`...)
			b = jsonw.String(b, string(g.Kind))
			b = append(b, `,"flags":`...)
			b = nullableStrings(b, g.Flags)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(d.InputSchema) > 0 {
		b = append(b, `,"input_schema":`...)
		if b, err = jsonw.Map(b, d.InputSchema); err != nil {
			return b, err
		}
	}
	if len(d.OutputSchema) > 0 {
		b = append(b, `,"output_schema":`...)
		b, err = e.shared(b, d.OutputSchema, func(b []byte) ([]byte, error) { return jsonw.Map(b, d.OutputSchema) })
		if err != nil {
			return b, err
		}
	}
	b = append(b, `,"exit_codes":`...)
	b, _ = e.shared(b, d.ExitCodes, func(b []byte) ([]byte, error) { return d.ExitCodes.AppendJSON(b), nil })
	if len(d.Examples) > 0 {
		b = append(b, `,"examples":[`...)
		for i, e := range d.Examples {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"description":`...)
			b = jsonw.String(b, e.Description)
			b = append(b, `,"command":`...)
			b = jsonw.String(b, e.Command)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(d.Subcommands) > 0 {
		b = append(b, `,"subcommands":`...)
		b = jsonw.Strings(b, d.Subcommands)
	}
	b = d.appendTrust(b)
	b = d.appendDiscovery(b)
	b = d.appendObserved(b)
	if b, err = d.appendWork(b); err != nil {
		return b, err
	}
	if b, err = d.appendInput(b); err != nil {
		return b, err
	}
	b = d.appendProc(b)
	return append(b, '}'), nil
}

// AppendJSON appends the flag's entry; a default JSON cannot hold (NaN) is
// left out rather than breaking the document.
func (e FlagEntry) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = jsonw.String(b, e.Type)
	b = append(b, `,"required":`...)
	b = jsonw.Bool(b, e.Required)
	b = append(b, `,"description":`...)
	b = jsonw.String(b, e.Description)
	if e.Default != nil {
		mark := len(b)
		b = append(b, `,"default":`...)
		var err error
		if b, err = jsonw.Value(b, e.Default); err != nil {
			b = b[:mark]
		}
	}
	if len(e.EnumValues) > 0 {
		b = append(b, `,"enum_values":`...)
		b = appendEnumValues(b, e.Type, e.EnumValues)
	}
	if e.Short != "" {
		b = append(b, `,"short":`...)
		b = jsonw.String(b, e.Short)
	}
	if len(e.Env) > 0 {
		b = append(b, `,"env":`...)
		b = jsonw.Strings(b, e.Env)
	}
	if e.Sensitive {
		b = append(b, `,"sensitive":true`...)
	}
	if e.JSON {
		b = append(b, `,"json":true`...)
	}
	if e.PipeCompatible {
		b = append(b, `,"pipe_compatible":true`...)
	}
	if len(e.Schema) > 0 {
		mark := len(b)
		var err error
		if b, err = jsonw.Map(jsonw.Key(b, "schema"), e.Schema); err != nil {
			b = b[:mark] // checked when the app was wrapped: cannot happen
		}
	}
	if e.Subprocess {
		b = append(b, `,"subprocess":true`...)
	}
	if e.MaxBytes != 0 {
		b = append(b, `,"max_bytes":`...)
		b = jsonw.Int(b, int64(e.MaxBytes))
	}
	if e.Deprecated != "" {
		b = append(b, `,"deprecated":`...)
		b = jsonw.String(b, e.Deprecated)
	}
	return append(b, '}')
}

// MarshalJSON encodes the entry as [FlagEntry.AppendJSON] does, so that an
// integer flag's enum_values are numbers however the entry is encoded.
func (e FlagEntry) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// appendEnumValues appends a flag's or argument's allowed values: numbers
// for an integer one (ManifestResponse 3.18), whose values Wrap checked
// are integers, else strings.
func appendEnumValues(b []byte, typ string, values []string) []byte {
	if typ != string(Integer) {
		return jsonw.Strings(b, values)
	}
	b = append(b, '[')
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			b = jsonw.Int(b, n)
		} else {
			b = jsonw.String(b, v) // not an integer: refused by Wrap, kept whole here
		}
	}
	return append(b, ']')
}

// AppendJSON appends the argument's description.
func (a Arg) AppendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = jsonw.String(b, a.Name)
	if a.Usage != "" {
		b = append(b, `,"description":`...)
		b = jsonw.String(b, a.Usage)
	}
	b = append(b, `,"required":`...)
	b = jsonw.Bool(b, a.Required)
	if a.Variadic {
		b = append(b, `,"variadic":true`...)
	}
	b = append(b, `,"type":`...)
	b = jsonw.String(b, string(a.Type))
	if len(a.Enum) > 0 {
		b = append(b, `,"enum":`...)
		b = jsonw.Strings(b, a.Enum)
	}
	if a.Pattern != "" {
		b = append(b, `,"pattern":`...)
		b = jsonw.String(b, a.Pattern)
	}
	if a.ID {
		b = append(b, `,"id":true`...)
	}
	if a.Pipe {
		b = append(b, `,"pipe_compatible":true`...)
	}
	if a.Subprocess {
		b = append(b, `,"subprocess":true`...)
	}
	return append(b, '}')
}

// AppendJSON appends an input schema's properties as an object.
func (ps properties) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.String(b, p.name)
		b = append(b, ':')
		b = p.AppendJSON(b)
	}
	return append(b, '}')
}

// MarshalJSON encodes the properties as an object, for encoding/json.
func (ps properties) MarshalJSON() ([]byte, error) { return ps.AppendJSON(nil), nil }

// AppendJSON appends one input-schema property.
func (p *property) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	if p.AdditionalProperties != nil {
		b = append(b, `"additionalProperties":`...)
		b = p.AdditionalProperties.AppendJSON(b)
	}
	if p.Default != nil {
		mark := len(b)
		b = jsonw.Key(b, "default")
		var err error
		if b, err = jsonw.Value(b, p.Default); err != nil {
			b = b[:mark]
		}
	}
	if p.Description != "" {
		b = jsonw.Key(b, "description")
		b = jsonw.String(b, p.Description)
	}
	if len(p.Enum) > 0 {
		b = jsonw.Key(b, "enum")
		b = jsonw.Strings(b, p.Enum)
	}
	if p.Format != "" {
		b = jsonw.Key(b, "format")
		b = jsonw.String(b, p.Format)
	}
	if p.Items != nil {
		b = jsonw.Key(b, "items")
		b = p.Items.AppendJSON(b)
	}
	if p.MinItems != 0 {
		b = jsonw.Key(b, "minItems")
		b = jsonw.Int(b, int64(p.MinItems))
	}
	if p.Pattern != "" {
		b = jsonw.Key(b, "pattern")
		b = jsonw.String(b, p.Pattern)
	}
	b = jsonw.Key(b, "type")
	b = jsonw.String(b, string(p.Type))
	if p.WriteOnly {
		b = append(b, `,"writeOnly":true`...)
	}
	return append(b, '}')
}

// nullableStrings is jsonw.Strings with encoding/json's null for a nil list.
func nullableStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	return jsonw.Strings(b, list)
}
