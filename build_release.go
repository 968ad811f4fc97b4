//go:build !dev

package main

const defaultHomeName = "reprise"

// devOrigins: a release build accepts only its own page's origin.
func devOrigins() []string { return nil }
