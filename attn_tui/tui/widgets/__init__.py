"""Widgets: each draws the plain data (a view) it is given and posts messages up; none knows the State."""
