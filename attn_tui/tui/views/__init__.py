"""Views: pure functions State -> exactly what a pane shows (numbers taken from the core,
computed once per state). Widgets draw what a view gives them and never see the State."""
