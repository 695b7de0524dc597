"""What the command line prints: text and Markdown reports, the gates that fail a CI
job, and the escaping that keeps snapshot names from forging either."""
