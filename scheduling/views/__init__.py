"""Pages: submit a what-if, follow it live, read the decision, share it.

Function views returning TemplateResponse. A page's fragments are partials,
rendered whole or alone when htmx asks for them (request.htmx.target). Every
hx-get has an href and every hx-post form works as a plain POST.

A module per page family: the what-if forms (whatif), the lists (lists), the result
page (results) and what it shows of each kind of answer (contexts), a workload's
cycles (cycles), share links (share), and the everyday actions (actions).
"""
