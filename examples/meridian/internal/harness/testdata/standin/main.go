// Command standin is the local stand-in for the model APIs that the streams
// under ../streams were captured against (see ../../README.md). It logs
// every request (method, URL, headers, body) to -dir, which is how the
// prompts were seen to arrive, and answers:
//
//	-mode anthropic  /v1/messages with a short SSE reply (-tool: first a Glob tool call)
//	-mode openai     /v1/responses with a short SSE reply (codex falls back to it from WebSockets)
//	-mode gemini     :streamGenerateContent with a reply in two chunks (a
//	                 list_directory call first when the prompt says "List the text files")
//	-mode fail       400 to everything
//
// It lives under testdata so the go tool ignores it; run it with
// `go run ./testdata/standin -mode anthropic -addr 127.0.0.1:18080 -dir /tmp/reqs`.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

var n atomic.Int64
var tool *bool

func main() {
	addr := flag.String("addr", "127.0.0.1:18080", "listen address")
	dir := flag.String("dir", "reqs", "directory for the request log")
	mode := flag.String("mode", "anthropic", "anthropic, openai, gemini or fail")
	tool = flag.Bool("tool", false, "first anthropic answer is a tool call")
	flag.Parse()
	os.MkdirAll(*dir, 0o755)
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		i := n.Add(1)
		hdr, _ := json.Marshal(r.Header)
		os.WriteFile(filepath.Join(*dir, fmt.Sprintf("%03d.txt", i)), []byte(r.Method+" "+r.URL.String()+"\n"+string(hdr)+"\n\n"+string(body)), 0o644)
		log.Printf("%d %s %s %d bytes", i, r.Method, r.URL, len(body))
		if *mode == "fail" {
			http.Error(w, `{"error":{"message":"nope"}}`, 400)
			return
		}
		if *mode == "anthropic" && strings.HasPrefix(r.URL.Path, "/v1/messages") {
			var req struct {
				Stream bool   `json:"stream"`
				Model  string `json:"model"`
			}
			json.Unmarshal(body, &req)
			if strings.Contains(r.URL.Path, "count_tokens") {
				w.Header().Set("content-type", "application/json")
				io.WriteString(w, `{"input_tokens":12}`)
				return
			}
			msg := `{"id":"msg_01","type":"message","role":"assistant","model":"` + req.Model + `","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":11,"output_tokens":1,"cache_read_input_tokens":7,"cache_creation_input_tokens":3}}`
			if !req.Stream {
				w.Header().Set("content-type", "application/json")
				io.WriteString(w, `{"id":"msg_02","type":"message","role":"assistant","model":"`+req.Model+`","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":2}}`)
				return
			}
			w.Header().Set("content-type", "text/event-stream")
			ev := func(name, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data) }
			if *tool && !strings.Contains(string(body), "tool_result") && !strings.Contains(string(body), "Generate a title") && !strings.Contains(string(body), "Write the title") {
				ev("message_start", `{"type":"message_start","message":{"id":"msg_00","type":"message","role":"assistant","model":"`+req.Model+`","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":120,"output_tokens":2,"cache_read_input_tokens":1000,"cache_creation_input_tokens":50}}}`)
				ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me look at the files first."}}`)
				ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
				ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"Glob","input":{}}}`)
				ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\":\"*.txt\"}"}}`)
				ev("content_block_stop", `{"type":"content_block_stop","index":1}`)
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":31}}`)
				ev("message_stop", `{"type":"message_stop"}`)
				return
			}
			ev("message_start", `{"type":"message_start","message":`+msg+`}`)
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello from the"}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" mock server."}}`)
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}`)
			ev("message_stop", `{"type":"message_stop"}`)
			return
		}
		if *mode == "openai" && strings.HasSuffix(r.URL.Path, "/responses") {
			w.Header().Set("content-type", "text/event-stream")
			ev := func(name, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data) }
			ev("response.created", `{"type":"response.created","response":{"id":"resp_1"}}`)
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"message","role":"assistant","id":"msg_1","content":[{"type":"output_text","text":"Hello from mock codex."}]}}`)
			ev("response.completed", `{"type":"response.completed","response":{"id":"resp_1","usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":40},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":5},"total_tokens":120}}}`)
			return
		}
		if *mode == "gemini" {
			switch {
			case strings.Contains(r.URL.Path, ":streamGenerateContent"):
				w.Header().Set("content-type", "text/event-stream")
				if strings.Contains(string(body), "List the text files") && !strings.Contains(string(body), "functionResponse") {
					fmt.Fprintf(w, "data: %s\r\n\r\n", `{"candidates":[{"content":{"parts":[{"text":"Let me look at the files first."}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":900,"candidatesTokenCount":8,"totalTokenCount":908,"cachedContentTokenCount":600},"modelVersion":"gemini-2.5-pro"}`)
					fmt.Fprintf(w, "data: %s\r\n\r\n", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"list_directory","args":{"dir_path":"."}}}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":900,"candidatesTokenCount":20,"totalTokenCount":920,"cachedContentTokenCount":600},"modelVersion":"gemini-2.5-pro"}`)
					return
				}
				fmt.Fprintf(w, "data: %s\r\n\r\n", `{"candidates":[{"content":{"parts":[{"text":"Hello from"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":2,"totalTokenCount":12},"modelVersion":"gemini-2.5-pro"}`)
				fmt.Fprintf(w, "data: %s\r\n\r\n", `{"candidates":[{"content":{"parts":[{"text":" mock gemini."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15,"cachedContentTokenCount":4},"modelVersion":"gemini-2.5-pro"}`)
				return
			case strings.Contains(r.URL.Path, ":generateContent"):
				w.Header().Set("content-type", "application/json")
				io.WriteString(w, `{"candidates":[{"content":{"parts":[{"text":"{\"reasoning\":\"x\",\"model_choice\":\"pro\"}"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4}}`)
				return
			case strings.Contains(r.URL.Path, ":countTokens"):
				w.Header().Set("content-type", "application/json")
				io.WriteString(w, `{"totalTokens":10}`)
				return
			}
		}
		http.Error(w, `{"error":"not found"}`, 404)
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
