package exitcode

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// marshalSorted writes m with its keys in numeric order rather than the
// lexical order encoding/json would give ("10" before "2").
func marshalSorted(codes []Code, m map[string]Entry) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range codes {
		if i > 0 {
			b.WriteByte(',')
		}
		k := strconv.Itoa(int(c))
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		v, err := json.Marshal(m[k])
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
