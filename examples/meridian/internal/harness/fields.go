package harness

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Field is a Request field a harness may lack; Fields() lists them all. Its
// value is the name of the Request struct field.
type Field string

// The fields of Request.
const (
	FieldModel              Field = "Model"
	FieldPrompt             Field = "Prompt"
	FieldAppendSystemPrompt Field = "AppendSystemPrompt"
	FieldSystemPrompt       Field = "SystemPrompt"
	FieldSandbox            Field = "Sandbox"
	FieldResumeID           Field = "ResumeID"
	FieldSessionID          Field = "SessionID"
	FieldFork               Field = "Fork"
	FieldReportPath         Field = "ReportPath"
	FieldInteractive        Field = "Interactive"
	FieldExtra              Field = "Extra"
)

// Fields lists every Request field, in declaration order.
func Fields() []Field {
	return []Field{
		FieldModel, FieldPrompt, FieldAppendSystemPrompt, FieldSystemPrompt, FieldSandbox, FieldResumeID,
		FieldSessionID, FieldFork, FieldReportPath, FieldInteractive, FieldExtra,
	}
}

// Flag is the Meridian flag that sets f, the name an Unsupported warning
// uses: "--append-system-prompt".
func (f Field) Flag() string {
	switch f {
	case FieldModel:
		return "--model"
	case FieldPrompt:
		return "--prompt"
	case FieldAppendSystemPrompt:
		return "--append-system-prompt"
	case FieldSystemPrompt:
		return "--system-prompt"
	case FieldSandbox:
		return "--sandbox"
	case FieldResumeID:
		return "--continue"
	case FieldSessionID:
		// Meridian has no such flag; it sets the field itself, and no
		// harness warns about it.
		return "--session-id"
	case FieldFork:
		return "--fork"
	case FieldReportPath:
		return "--report-path"
	case FieldInteractive:
		return "--interactive"
	case FieldExtra:
		return "--harness-arg"
	}
	return "--" + string(f)
}

// Policy is what one harness does with one Field.
type Policy struct {
	// Supported: the CLI takes the field (How says how).
	Supported bool
	// How is the CLI's mechanism ("--model M", "stdin"), or why it has none.
	How string
	// Warn: when unsupported and set, Build reports it as Unsupported; when
	// false it is dropped silently because the caller has another way (a
	// report is extracted from the event stream when the CLI cannot write
	// ReportPath itself).
	Warn bool
}

// Sandbox levels, from least to most access.
const (
	SandboxReadOnly       = "read-only"
	SandboxWorkspaceWrite = "workspace-write"
	SandboxFullAccess     = "full-access"
)

// Validate reports what is wrong with r before Build: an unknown Sandbox,
// Fork without ResumeID, a SessionID that is not a UUID, a relative
// ReportPath.
func (r Request) Validate() error {
	var errs []error
	switch r.Sandbox {
	case "", SandboxReadOnly, SandboxWorkspaceWrite, SandboxFullAccess:
	default:
		errs = append(errs, fmt.Errorf("sandbox %q is not one of %s, %s, %s", r.Sandbox, SandboxReadOnly, SandboxWorkspaceWrite, SandboxFullAccess))
	}
	if r.Fork && r.ResumeID == "" {
		errs = append(errs, errors.New("fork needs a session to resume"))
	}
	if r.SessionID != "" && !isUUID(r.SessionID) {
		// claude refuses anything else ("Invalid session ID. Must be a
		// valid UUID."), and NewSessionID makes nothing else.
		errs = append(errs, fmt.Errorf("session id %q is not a UUID", r.SessionID))
	}
	if r.ReportPath != "" && !filepath.IsAbs(r.ReportPath) {
		errs = append(errs, fmt.Errorf("report path %q is not absolute", r.ReportPath))
	}
	return errors.Join(errs...)
}
