package schema_test

import (
	"encoding/json"
	"fmt"

	"github.com/duet-cli/duet/schema"
)

// A command declares its output as the Go type it returns: the schema is
// what encoding/json writes for it, and its shape is what the compact
// manifest tells an agent.
func ExampleOf() {
	type run struct {
		ID     string   `json:"id" doc:"the run's id, such as r12"`
		Status string   `json:"status"`
		Tags   []string `json:"tags,omitempty"`
		Cost   *float64 `json:"cost_usd"`
	}
	s, err := schema.Of[[]run]().Schema()
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Shape())
	doc, _ := json.Marshal(s.Property("id"))
	fmt.Println(string(doc))
	// Output:
	// {cost_usd:number|null,id:string,status:string,tags?:string[]}[]
	// {"description":"the run's id, such as r12","type":"string"}
}
