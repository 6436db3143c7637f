package state_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/duet-cli/duet/examples/meridian/internal/state"
)

func TestSessions(t *testing.T) {
	root := state.Root{Dir: filepath.Join(t.TempDir(), ".meridian")}
	ctx := context.Background()
	sp, err := root.CreateSpace(ctx, "", now)
	if err != nil {
		t.Fatal(err)
	}
	ss := state.Sessions{Dir: root.SpaceDir(sp.ID)}
	id, hold, err := ss.Start(ctx, state.SessionEvent{Harness: "claude", Model: "claude-opus-4-6", Params: []string{"--effort", "high"}, StartedAt: state.Timestamp(now)})
	if err != nil || id != "c1" {
		t.Fatalf("Start = %q, %v", id, err)
	}
	if alive, err := ss.Alive(id); err != nil || !alive {
		t.Errorf("Alive(c1) while held = %v, %v", alive, err)
	}
	if err := ss.Append(ctx, state.SessionEvent{Event: "update", SessionID: id, HarnessSessionID: "sess-9"}); err != nil {
		t.Fatal(err)
	}
	if err := hold.Release(); err != nil {
		t.Fatal(err)
	}
	if alive, _ := ss.Alive(id); alive {
		t.Error("Alive(c1) after release = true")
	}
	if err := ss.Append(ctx, state.SessionEvent{Event: "stop", SessionID: id, StoppedAt: state.Timestamp(now)}); err != nil {
		t.Fatal(err)
	}
	id2, hold2, err := ss.Start(ctx, state.SessionEvent{Harness: "codex"})
	if err != nil || id2 != "c2" {
		t.Fatalf("second Start = %q, %v", id2, err)
	}
	hold2.Release()
	events, err := ss.Events()
	if err != nil || len(events) != 4 || events[1].HarnessSessionID != "sess-9" || events[2].Event != "stop" {
		t.Errorf("Events = %+v, %v", events, err)
	}
	if alive, _ := ss.Alive("c9"); alive {
		t.Error("a chat that never started is alive")
	}
}

// TestLivenessSurvivesOnlyItsProcess holds a chat's lock in another process
// and kills it with SIGKILL: the chat is alive while it runs and dead after,
// with nothing cleaned up by the dead process.
func TestLivenessSurvivesOnlyItsProcess(t *testing.T) {
	root := state.Root{Dir: filepath.Join(t.TempDir(), ".meridian")}
	sp, err := root.CreateSpace(context.Background(), "", now)
	if err != nil {
		t.Fatal(err)
	}
	dir := root.SpaceDir(sp.ID)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldChat$")
	cmd.Env = append(os.Environ(), "STATE_HELPER_SPACE="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf) // the helper says "held" once it holds the lock
	if !strings.Contains(string(buf[:n]), "held") {
		cmd.Process.Kill()
		t.Fatalf("helper said %q", buf[:n])
	}
	ss := state.Sessions{Dir: dir}
	if alive, _ := ss.Alive("c1"); !alive {
		t.Error("c1 is not alive while its process holds it")
	}
	cmd.Process.Kill() // SIGKILL: no cleanup runs
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		alive, _ := ss.Alive("c1")
		if !alive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("c1 still alive after its process was killed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHelperHoldChat starts a chat and holds it until killed; run alone it
// does nothing.
func TestHelperHoldChat(t *testing.T) {
	dir := os.Getenv("STATE_HELPER_SPACE")
	if dir == "" {
		t.Skip("a helper of TestLivenessSurvivesOnlyItsProcess")
	}
	if _, _, err := (state.Sessions{Dir: dir}).Start(context.Background(), state.SessionEvent{Harness: "claude"}); err != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString("held\n")
	select {}
}
