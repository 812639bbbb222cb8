import tools

tools.helper()
