package input_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/duet-cli/duet/input"
)

// A command reads its payload from the context, whether it came on stdin or
// in the file --input-file names; a test gives it one with NewContext.
func ExampleFrom() {
	importLines := func(ctx context.Context) error {
		data, err := input.From(ctx).ReadAll()
		if err != nil {
			return err
		}
		fmt.Printf("read %d bytes from %s\n", len(data), input.From(ctx).Name())
		return nil
	}
	ctx := input.NewContext(context.Background(), input.FromBytes([]byte(`{"title":"a"}`+"\n")))
	importLines(ctx)
	// Output:
	// read 14 bytes from stdin
}

// A line-mode command (schema.Meta.StdinLines) takes each line as it
// arrives, with no total cap; a line over the cap ends the read.
func ExampleSource_Lines() {
	payload := `{"title":"a"}` + "\n" + `{"title":"b"}` + "\n" + `{"title":"` + strings.Repeat("c", 40) + `"}` + "\n"
	src := input.FromStream("stdin", strings.NewReader(payload)).WithMaxLineBytes(32)
	for line, err := range src.Lines() {
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println(string(line))
	}
	// Output:
	// {"title":"a"}
	// {"title":"b"}
	// LINE_TOO_LARGE: line 3 of stdin is longer than 32 bytes; the lines before it were read
}
