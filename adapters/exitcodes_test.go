package adapters_test

import "github.com/duet-cli/duet/exitcode"

func exitcodeTable(code exitcode.Code, name string, retryable bool, effects exitcode.SideEffects) exitcode.Table {
	return exitcode.Table{code: {Name: name, Description: "declared by the test", Retryable: retryable, SideEffects: effects}}
}
