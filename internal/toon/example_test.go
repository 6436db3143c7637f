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

// Records with a uniform nested object become one table, the nested
// object's fields folded into the header as a group; an object whose
// values are uniform records becomes a keyed table, each row under its key.
func ExampleAppendJSON_v4Tables() {
	src := []byte(`{
		"forecast":[
			{"day":"Mon","temp":{"min":-2,"max":4},"sky":"snow"},
			{"day":"Tue","temp":{"min":1,"max":7},"sky":"cloudy"}
		],
		"environments":{
			"production":{"region":"eu-central-1","replicas":6},
			"staging":{"region":"eu-central-1","replicas":2}
		}
	}`)
	out, err := toon.AppendJSON(nil, src, toon.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// forecast[2]{day,temp{min,max},sky}:
	//   Mon,-2,4,snow
	//   Tue,1,7,cloudy
	// environments[2:]{region,replicas}:
	//   production: eu-central-1,6
	//   staging: eu-central-1,2
}
