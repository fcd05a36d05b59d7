"""The config file: layout (``model``), loading with located errors (``loading``),
and the pure half of hot reload (``reloading``). docs/rules.md describes the format."""

from notifier.config.errors import ConfigError, ConfigIssue
from notifier.config.loading import (
    LoadedConfig,
    load_config,
    load_config_text,
    read_config,
    read_config_text,
)
from notifier.config.model import Config, WatchConfig
from notifier.config.reloading import ReloadResult, RulesHolder

__all__ = [
    "Config",
    "ConfigError",
    "ConfigIssue",
    "LoadedConfig",
    "ReloadResult",
    "RulesHolder",
    "WatchConfig",
    "load_config",
    "load_config_text",
    "read_config",
    "read_config_text",
]
