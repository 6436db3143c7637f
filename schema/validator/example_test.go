package validator_test

import (
	"encoding/json"
	"fmt"

	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/schema/validator"
)

// A test holds a command's answer to the output it declares.
func ExampleCompile() {
	type note struct {
		ID    string `json:"id"`
		Count int    `json:"count"`
	}
	c, err := validator.Compile(schema.Of[note]())
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Validate(json.RawMessage(`{"id":"n1","count":2}`)) == nil)
	fmt.Println(c.Validate(json.RawMessage(`{"id":"n1","count":"two"}`)) == nil)
	// Output:
	// true
	// false
}
