"""Old name of :mod:`admin_panel.agent_home`, kept only for imports not yet moved to the new name."""

from admin_panel.agent_home import current_home, panel_home, working_on

__all__ = ["current_home", "panel_home", "working_on"]
