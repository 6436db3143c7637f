// Package statetest writes large, realistic state for benchmarks: a space's
// runs.jsonl as package state writes it, without its locks and syncs.
package statetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/duet-cli/duet/examples/meridian/internal/state"
)

// WriteRuns writes n finished runs to path: a start, a session update and a
// finalize each, compact JSON a line, with composed prompts of a realistic
// size; one run in ten failed.
func WriteRuns(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w) // compact, a line per value: what state writes
	models := []string{"claude-opus-4-6", "gpt-5.3-codex", "gemini-2.5-pro"}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("r%d", i)
		exit, dur, cost := 0, 30+float64(i%300), 0.001*float64(i%50)
		in, out, cached := int64(4000+i%900), int64(1500+i%700), int64(i%1000)
		status := state.Succeeded
		if i%10 == 0 {
			status, exit = state.Failed, 1
		}
		for _, ev := range []state.Event{
			{V: 1, Event: "start", Run: state.Run{ID: id, SessionID: "c1", Model: models[i%3], Agent: "coder", Skills: []string{"go", "review"},
				Harness: "claude", Status: state.Running, StartedAt: "2026-02-28T10:00:00Z",
				Prompt: fmt.Sprintf("# Skill: go\n\nWrite idiomatic Go; keep packages small.\n\n# Agent Profile\n\nYou review code and say what is wrong, with file and line.\n\n# Report\n\nYour final message is the report of your work.\n\nReview change %d.\n", i)}},
			{V: 1, Event: "update", Run: state.Run{ID: id, HarnessSessionID: fmt.Sprintf("5f0c6a9e-2b7d-4c1e-9a51-%012d", i)}},
			{V: 1, Event: "finalize", Run: state.Run{ID: id, Status: status, ExitCode: &exit, DurationSecs: &dur, TotalCostUSD: &cost,
				InputTokens: &in, OutputTokens: &out, CachedTokens: &cached, FinishedAt: "2026-02-28T10:02:08Z"}},
		} {
			if err := enc.Encode(ev); err != nil {
				f.Close()
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
