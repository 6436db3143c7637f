package toon_test

import (
	"fmt"

	"github.com/duet-cli/duet/internal/toon"
)

func ExampleAppendJSON() {
	src := []byte(`{"items":[
		{"id":1,"name":"Ada","role":"admin"},
		{"id":2,"name":"Bob","role":"user"},
		{"id":3,"name":"Lee, Jr.","role":"user"}
	],"next":null}`)
	out, err := toon.AppendJSON(nil, src, toon.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// items[3]{id,name,role}:
	//   1,Ada,admin
	//   2,Bob,user
	//   3,"Lee, Jr.",user
	// next: null
}
