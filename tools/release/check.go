package main

import (
	"debug/buildinfo"
	"debug/elf"
	"fmt"
)

// checkBinary fails unless the binary at path was built without cgo and with
// -trimpath, and, for Linux, is a static ELF: no program interpreter and no
// shared-library dependency. (Go links macOS binaries against libSystem and
// Windows binaries load system DLLs at run time whatever the settings, so
// for them the build settings are the check.)
func checkBinary(path string, t target) error {
	if err := checkBuildSettings(path); err != nil {
		return err
	}
	if t.goos == "linux" {
		return checkStaticELF(path)
	}
	return nil
}

func checkBuildSettings(path string) error {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading build information: %w", err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["CGO_ENABLED"] != "0" {
		return fmt.Errorf("built with CGO_ENABLED=%q, want 0", settings["CGO_ENABLED"])
	}
	if settings["-trimpath"] != "true" {
		return fmt.Errorf("built without -trimpath")
	}
	return nil
}

func checkStaticELF(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("dynamically linked: has a program interpreter")
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return err
	}
	if len(libs) > 0 {
		return fmt.Errorf("dynamically linked: needs %v", libs)
	}
	return nil
}
