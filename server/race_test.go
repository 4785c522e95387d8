//go:build race

package server

// raceEnabled reports a -race build; the oracle test then keeps only the
// recordings that exercise the server end to end.
const raceEnabled = true
