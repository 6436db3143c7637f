package exitcode_test

import (
	"encoding/json"
	"fmt"

	"github.com/duet-cli/duet/exitcode"
)

// A command declares the codes it uses over the defaults: a more precise
// description of NOT_FOUND, and a command-specific code in 79–125.
func ExampleTable() {
	table := exitcode.Defaults().Merge(exitcode.Table{
		exitcode.NotFound: {Description: "The space does not exist; nothing was changed."},
		80:                {Name: "STALE_LOCK", Description: "Another run holds the lock.", SideEffects: exitcode.None},
	})
	if err := table.Validate(); err != nil {
		fmt.Println("invalid:", err)
		return
	}
	for _, c := range []exitcode.Code{exitcode.Success, exitcode.NotFound, exitcode.RateLimited, 80} {
		e := table[c]
		fmt.Printf("%d %s retryable=%v side_effects=%s\n", c, e.Name, e.Retryable, e.SideEffects)
	}
	raw, _ := json.Marshal(exitcode.Table{80: table[80], exitcode.NotFound: table[exitcode.NotFound]})
	fmt.Println(string(raw))

	bad := table.Merge(exitcode.Table{99: {Description: "no name", SideEffects: exitcode.None}})
	fmt.Println(bad.Validate())
	// Output:
	// 0 SUCCESS retryable=false side_effects=complete
	// 5 NOT_FOUND retryable=false side_effects=none
	// 11 RATE_LIMITED retryable=true side_effects=none
	// 80 STALE_LOCK retryable=false side_effects=none
	// {"5":{"name":"NOT_FOUND","description":"The space does not exist; nothing was changed.","retryable":false,"side_effects":"none"},"80":{"name":"STALE_LOCK","description":"Another run holds the lock.","retryable":false,"side_effects":"none"}}
	// custom exit code 99 has no name
}
