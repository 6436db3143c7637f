package speckit_test

import (
	"fmt"

	"github.com/duet-cli/duet/internal/speckit"
)

// Reading what the kit printed: the level verdicts, and the failed checks
// as a test would report them. A test gets the same Result from Run.
func ExampleParse() {
	stdout := []byte(`{
  "ok": false,
  "data": {
    "schema_version": "1.0",
    "tool": "todo",
    "levels": {"level_1": "pass", "level_2": "pass", "level_3": "fail"},
    "summary": {"passed": 1, "failed": 1, "skipped": 0},
    "checks": [
      {"id": "json_envelope", "title": "Non-TTY stdout is exactly one valid ResponseEnvelope without flags",
       "status": "pass", "level": 1, "failure_modes": ["§2"], "requirements": ["REQ-F-003"], "runs_checked": 1, "failures": []},
      {"id": "manifest_valid", "title": "tool manifest returns a valid ManifestResponse",
       "status": "fail", "level": 3, "failure_modes": ["§52", "§21"], "requirements": ["REQ-O-041"], "runs_checked": 1,
       "failures": [{"probe": "manifest", "argv": ["/tmp/todo", "manifest"], "stdin": "closed", "exit_code": 0,
                     "timed_out": false, "duration_ms": 12,
                     "detail": "data is not a valid ManifestResponse: schema_version: '1.0' does not match"}]}
    ]
  },
  "error": {"code": "CONFORMANCE_CHECKS_FAILED", "message": "1 of 2 checks failed", "retryable": false},
  "warnings": [],
  "meta": {"exit_code": 4, "duration_ms": 40, "schema_version": "1.0"}
}`)
	res, err := speckit.Parse(stdout)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("level 3:", res.Levels["level_3"])
	fmt.Print(res.Failures())
	// Output:
	// level 3: fail
	// manifest_valid (level 3; REQ-O-041): tool manifest returns a valid ManifestResponse
	//   manifest: exit 0: data is not a valid ManifestResponse: schema_version: '1.0' does not match
	//     $ /tmp/todo manifest </dev/null
}
