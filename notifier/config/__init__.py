"""The config file: layout (``model``), loading with located errors (``loading``);
hot reload is ``notifier/reload``. docs/rules.md describes the format."""

from notifier.config.errors import ConfigError, ConfigIssue
from notifier.config.loading import (
    LoadedConfig,
    load_config,
    load_config_text,
    read_config,
    read_config_text,
)
from notifier.config.model import Config, WatchConfig

__all__ = [
    "Config",
    "ConfigError",
    "ConfigIssue",
    "LoadedConfig",
    "WatchConfig",
    "load_config",
    "load_config_text",
    "read_config",
    "read_config_text",
]
