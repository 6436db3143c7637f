// Package errcode names the error codes Duet's own lifecycle and adapters
// answer with in more than one place — a command line the framework
// refuses, a time limit — so that every place spells them alike. A code
// one place answers with stays a literal beside the error it names.
package errcode

// The codes of a command line refused (exit 2), by the framework or by
// Duet's checks of the declarations.
const (
	UsageError          = "USAGE_ERROR"           // refused, for no reason more precise
	UnknownCommand      = "UNKNOWN_COMMAND"       // a word that names no command
	UnknownFlag         = "UNKNOWN_FLAG"          // a flag the command does not take
	MissingFlagValue    = "MISSING_FLAG_VALUE"    // a flag without the value it takes
	InvalidFlagValue    = "INVALID_FLAG_VALUE"    // a value the flag does not take
	InvalidEnumValue    = "INVALID_ENUM_VALUE"    // a value outside the flag's declared set
	MissingRequiredFlag = "MISSING_REQUIRED_FLAG" // a required flag left out
	InvalidArgument     = "INVALID_ARGUMENT"      // a positional argument the command does not take
	InvalidArguments    = "INVALID_ARGUMENTS"     // an MCP tool call's arguments that do not fit its schema
	WrongArgumentCount  = "WRONG_ARGUMENT_COUNT"  // too many or too few positional arguments
	InputRequired       = "INPUT_REQUIRED"        // a prompt no one can answer
)

// The codes of other failures.
const (
	Timeout            = "TIMEOUT"             // exit 124 (or 9 for a network wait): the time limit ran out
	InvalidDeclaration = "INVALID_DECLARATION" // exit 1: the app's declarations do not hold
)
