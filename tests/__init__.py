"""The tests as a package: helpers are imported by name (tests.core.badfiles, tests.tui.ptyrun),
never through sys.path."""
