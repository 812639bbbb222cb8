greeting = 'hello'
