"""The person's page, the third face beside ``cli`` and ``mcp`` (``documentation/page.md``).

``review --serve`` serves it on 127.0.0.1 (``server``); each button is a library call
(``actions``) on the facade, ``MemoryStore``; a destructive one first asks with real
counts (``questions``); ``controls`` are its forms; ``launch`` starts it in the
background for ``open-page`` (MCP ``memory_open_page``). The markup it shares with the
review file is ``review``'s. Imported only when the page runs or is launched.
"""
