package main

// devicesCmd is `waggle devices` (llama.cpp's --list-devices).
type devicesCmd struct{}

func (devicesCmd) Run() error { return listDevices() }
