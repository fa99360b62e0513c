//go:build !linux

// Package prefault backs heap memory a process is about to use in one system call.
package prefault

// Heap is a Linux optimisation (see prefault_linux.go).
func Heap(int) {}
