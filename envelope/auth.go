package envelope

import (
	"time"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/jsonw"
)

// The codes of the three ways credentials fail. An agent tells a denial it
// cannot correct (exit 7) from credentials it can renew or supply (exit 8)
// by the exit code alone, and missing credentials from expired ones by the
// code.
const (
	CodeUnauthenticated    = "UNAUTHENTICATED"     // exit 8: no credentials
	CodeCredentialsExpired = "CREDENTIALS_EXPIRED" // exit 8: credentials that expired
	CodePermissionDenied   = "PERMISSION_DENIED"   // exit 7: valid credentials that may not do this
)

// Unauthenticated is the answer of a command that needs credentials and has
// none: exit 8, UNAUTHENTICATED. The lifecycle adds the hint naming the
// tool's login command (the command declared with schema.Meta.Auth).
func Unauthenticated(format string, args ...any) *Error {
	e := Errorf(exitcode.AuthRequired, CodeUnauthenticated, format, args...)
	e.FixRequired = "authenticate, then reissue the command"
	return e
}

// CredentialsExpired is the answer of a command whose credentials expired
// at the given time (the zero time when it is not known): exit 8,
// CREDENTIALS_EXPIRED, with expires_at. The lifecycle adds the
// refresh_command (the command declared with schema.Auth.Refresh, else the
// login).
func CredentialsExpired(at time.Time) *Error {
	e := Errorf(exitcode.AuthRequired, CodeCredentialsExpired, "the credentials have expired")
	if !at.IsZero() {
		e.ExpiresAt = at.UTC().Format(time.RFC3339)
		e.Message = "access token expired at " + e.ExpiresAt
	}
	e.FixRequired = "refresh the credentials, then reissue the command"
	return e
}

// PermissionDenied is the answer of a command whose credentials are valid
// but lack permission: exit 7, PERMISSION_DENIED, with the permission it
// lacks as required_permission.
func PermissionDenied(permission string) *Error {
	e := Errorf(exitcode.PermissionDenied, CodePermissionDenied, "the credential lacks the %q permission", permission)
	e.RequiredPermission = permission
	return e
}

// AuthMethod is a way to authenticate without a browser.
type AuthMethod struct {
	Type string `json:"type"` // "env_var"
	Name string `json:"name"` // the environment variable
	Hint string `json:"hint"` // how to set it
}

// appendTrust appends the error's auth and network members.
func (e *Error) appendTrust(b []byte) []byte {
	b = optString(b, "hint", e.Hint)
	b = optString(b, "expires_at", e.ExpiresAt)
	b = optString(b, "refresh_command", e.RefreshCommand)
	b = optString(b, "required_permission", e.RequiredPermission)
	for _, list := range []struct {
		name   string
		scopes []string
	}{{"required_scopes", e.RequiredScopes}, {"active_scopes", e.ActiveScopes}, {"missing_scopes", e.MissingScopes}} {
		if len(list.scopes) > 0 {
			b = jsonw.Strings(jsonw.Key(b, list.name), list.scopes)
		}
	}
	if len(e.AuthMethods) > 0 {
		b = append(b, `,"auth_methods":[`...)
		for i, m := range e.AuthMethods {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":`...)
			b = jsonw.String(b, m.Type)
			b = append(b, `,"name":`...)
			b = jsonw.String(b, m.Name)
			b = append(b, `,"hint":`...)
			b = jsonw.String(b, m.Hint)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if e.NetworkContext != nil {
		b = e.NetworkContext.appendJSON(jsonw.Key(b, "network_context"))
	}
	return b
}
