from notifier.cli import entry

entry()
