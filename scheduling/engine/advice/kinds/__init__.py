"""The kinds of advice, a module each (``search(asked, base, budget)`` proposes its
changes and proves them); ``registry.KINDS`` lists them in the order ``advise`` searches
them, ``common`` holds what they share."""
