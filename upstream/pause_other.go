//go:build !linux

package main

import "time"

// pause waits about d between two checks of a condition (pause_linux.go).
func pause(d time.Duration) { time.Sleep(d) }
