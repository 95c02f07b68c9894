//go:build linux

package main

import (
	"syscall"
	"time"
)

// pause blocks the calling goroutine's thread for about d, a short wait (tens of
// microseconds) between two checks of a condition other goroutines of this process make true
// (settle, waitSynced). time.Sleep is no good for that on Linux: a Go timer shorter than a
// millisecond fires after about 1.1 ms (the runtime's netpoller waits in epoll_pwait, whose
// timeout is in milliseconds), and a request waits this way a dozen times or more: half of
// a small explain's wall time was these sleeps. nanosleep(2) wakes within the kernel's timer
// slack (50 us); the runtime hands the thread's P to other goroutines meanwhile (a blocking
// system call), so the goroutines being waited for keep running.
func pause(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		if err := syscall.Nanosleep(&ts, &rem); err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
