//go:build !bindings

package main

const bindingsOnly = false
