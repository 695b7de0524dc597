"""The audit's rules, a module per family of objects (classes, pods, budgets, placement,
storage, devices, profiles); ``registry.RULES`` lists them with their ids, severities and
reasons, in the order findings are listed."""
