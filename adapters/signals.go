package adapters

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// TakeSignals hands the SIGINT and SIGTERM the run in ctx receives to the
// command, until release is called: the lifecycle stops cancelling the run
// on them and sends them on the channel instead (dropping one the command
// has not read yet).
//
// It is for a command that gives the terminal to a child process — an
// editor, a shell, an agent's TUI — and must outlive it: the child takes the
// terminal's Ctrl-C itself, as with system(3), and the command decides what
// a signal sent to it means (usually: pass it on, then wait). The run's
// answer still comes after the command returns.
//
// Outside a Duet run (a command's function called by a test), and in a run
// that handles no signals (a command nobody ported, run for a person or a
// script as the app would run), the signals come straight from the process.
func TakeSignals(ctx context.Context) (signals <-chan os.Signal, release func()) {
	ch := make(chan os.Signal, 1)
	inv, ok := ctx.Value(invocationKey{}).(*invocation)
	if !ok || inv.sigs == nil {
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		return ch, func() { signal.Stop(ch) }
	}
	inv.taken.Lock()
	inv.takenBy = ch
	inv.taken.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			r := signalRelease{ch: ch, done: make(chan struct{})}
			if inv.releases == nil { // taken before the command runs: no loop reads them yet
				inv.release(r)
				return
			}
			select {
			case inv.releases <- r:
				<-r.done
			case <-inv.loopDone: // the run is over: nobody reads the signals
				inv.release(r)
			}
		})
	}
}

// signalRelease is a command letting go of the signals it took.
type signalRelease struct {
	ch   chan os.Signal
	done chan struct{} // closed once the signals are the lifecycle's again
}

// release gives the signals back to the lifecycle, in the loop that reads
// them: a signal that arrived while the command had them but is still
// unread — the Ctrl-C that ended the command's child, read a moment after
// the command let go — is the command's, and does not cancel the run.
func (inv *invocation) release(r signalRelease) {
	defer close(r.done)
	for {
		select {
		case s := <-inv.sigs:
			if s != syscall.SIGPIPE {
				inv.handOver(s)
			}
			continue
		default:
		}
		break
	}
	inv.taken.Lock()
	if inv.takenBy == r.ch {
		inv.takenBy = nil
	}
	inv.taken.Unlock()
}

// handOver sends s to the command that took the run's signals, and reports
// whether one had.
func (inv *invocation) handOver(s os.Signal) bool {
	inv.taken.Lock()
	defer inv.taken.Unlock()
	if inv.takenBy == nil {
		return false
	}
	select {
	case inv.takenBy <- s:
	default:
	}
	return true
}
